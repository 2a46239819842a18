run
scontrol show job $E4 | grep -E '(^| )(NumNodes|NumCPUs|NumTasks|OverSubscribe)='
