run
scontrol write conf
