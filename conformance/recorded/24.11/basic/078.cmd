run
scontrol update job=$J1 TimeLimit=30
