run
scontrol -a show partition
