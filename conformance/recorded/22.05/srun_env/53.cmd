run compare=stdout,rc as=spurtest
salloc -N1 sh -c 'srun -l env | sort'
