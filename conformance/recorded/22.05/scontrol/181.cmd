run
scontrol -V
