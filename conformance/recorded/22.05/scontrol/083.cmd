run
scontrol update JobId=$S2 NumNodes=1 ExcNodeList= MinMemoryNode=0
