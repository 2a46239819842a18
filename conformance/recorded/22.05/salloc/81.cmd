run
salloc -t abc true
