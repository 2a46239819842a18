run
scontrol --help
