run
scontrol write config
