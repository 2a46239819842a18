run
salloc --bogus true
