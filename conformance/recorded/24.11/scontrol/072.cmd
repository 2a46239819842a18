run
scontrol update JobId=$S2 TimeLimit=1-00:00:00
