run
sstat -p -j $J -o JobID,MaxRSS,AveCPU,NTasks
