run
salloc --usage
