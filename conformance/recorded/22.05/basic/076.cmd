run
scontrol update JobId=$J7 TimeLimit=10
