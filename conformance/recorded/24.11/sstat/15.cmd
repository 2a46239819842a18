run
sstat -n -j $J -o JobID,NTasks
