run compare=stdout,rc
salloc -N2 -n4 sh -c 'srun --distribution=cyclic -l env | sort'
