run
sstat -j $J.2 -o JobID,NTasks
