run
scontrol update JobId=$S1 TimeLimit=25 Comment=running
