run
sstat -e
