run compare=stdout,rc
salloc -N2 -n4 sh -c 'srun -N2 -n3 -l env | sort'
