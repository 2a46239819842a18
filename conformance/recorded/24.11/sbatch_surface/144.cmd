run
scontrol show job $O12 | grep -E '(^| )(NumNodes|NumCPUs|NumTasks)='
