run
sstat -P -a -j $J -o JobID,NTasks
