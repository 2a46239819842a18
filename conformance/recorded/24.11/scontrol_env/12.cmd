run
scontrol write config a b
