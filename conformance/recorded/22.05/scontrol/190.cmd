run
scontrol update JobId=$S2 Comment=after
