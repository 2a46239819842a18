run compare=stdout,rc
salloc -N1 sh -c 'env | sort'
