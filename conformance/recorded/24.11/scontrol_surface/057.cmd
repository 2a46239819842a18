run
scontrol -h
