run
squeue -O JobID:10,UserName:12,Partition,NumNodes,NumCPUs,MinMemory,TimeLimit,Command:30
