run
scontrol update JobId=$S2 NumNodes=2
