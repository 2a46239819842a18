run
scontrol show job $P10 | grep -E '(^| )(NumNodes|NumCPUs|NumTasks|CPUs/Task|MinCPUsNode)='
