run
sstat -P -j $J -o JobID,MaxRSS,AveCPU,NTasks
