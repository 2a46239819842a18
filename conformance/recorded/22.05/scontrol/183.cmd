run
scontrol version
