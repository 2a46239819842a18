run
sstat -j $J,$J.batch -o JobID,NTasks
