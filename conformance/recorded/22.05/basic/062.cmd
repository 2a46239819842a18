run
scontrol -o show partition
