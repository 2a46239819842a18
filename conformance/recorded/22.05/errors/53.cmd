run as=spurtest
scontrol update JobId=$R1 TimeLimit=5
