run
sstat -j $J -o JobID,MaxRSS,AveCPU,NTasks
