run
scontrol --hide show partition
