run
scontrol update JobId=$S2 ExcNodeList=node4
