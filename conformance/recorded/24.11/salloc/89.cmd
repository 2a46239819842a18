run
salloc --jobid=999 true
