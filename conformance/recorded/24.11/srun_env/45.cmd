run compare=stdout,rc
salloc -n2 -c2 sh -c 'srun -l env | sort'
