run
scontrol update JobId=$S2 MinMemoryNode=800
