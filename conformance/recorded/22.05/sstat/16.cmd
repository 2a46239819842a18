run
sstat -n -P -a -j $J -o JobID,NTasks
