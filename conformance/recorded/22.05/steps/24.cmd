run
sstat -j $J.2 --noheader -o JobID,NTasks
