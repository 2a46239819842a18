run compare=stdout,rc
salloc -N2 --ntasks-per-node=2 sh -c 'srun --ntasks-per-node=1 -l env | sort'
