run
salloc -V
