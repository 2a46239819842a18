run
salloc --help
