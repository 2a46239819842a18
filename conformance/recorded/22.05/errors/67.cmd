run as=spurtest
scontrol update JobId=$U1 TimeLimit=5
