run
scontrol update JobId=$S2 Nice=5
