run
scontrol update JobId=$S1 MinMemoryNode=100
