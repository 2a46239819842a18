run
scontrol --version
