run
scontrol show job $E2 | grep -E '(^| )(NumCPUs|OverSubscribe|TRES)='
