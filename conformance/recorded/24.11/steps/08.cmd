run
squeue -s -O StepId,StepName,NodeList,NumTasks,Partition,UserName,TimeLimit -j $J
