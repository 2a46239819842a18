run
scontrol version extra
