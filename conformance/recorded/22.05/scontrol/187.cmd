run
scontrol -o
