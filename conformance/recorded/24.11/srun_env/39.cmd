run compare=stdout,rc
salloc -N2 -n4 srun -l env | sort
