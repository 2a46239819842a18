run as=spurtest
sstat -j $J -o JobID,NTasks
