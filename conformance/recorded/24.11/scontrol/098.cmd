run
scontrol update JobId=$S1 NumNodes=2
