run
salloc -n0 true
