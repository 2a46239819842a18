run
scontrol update JobId=999999 TimeLimit=10
