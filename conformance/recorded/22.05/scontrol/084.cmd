run
scontrol update JobId=$S2 Dependency=afterok:$S1
