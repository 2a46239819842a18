run
scontrol --usage
