run
sstat -o JobID
