run
scontrol update
