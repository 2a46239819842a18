run
scontrol --all show partition
