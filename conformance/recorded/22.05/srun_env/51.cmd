run compare=stdout,rc as=spurtest
salloc -N1 -J useralloc -t 5 sh -c 'env | sort'
