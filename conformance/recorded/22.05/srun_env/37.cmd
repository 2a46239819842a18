run compare=stdout,rc
salloc -N2 -n4 env | sort
