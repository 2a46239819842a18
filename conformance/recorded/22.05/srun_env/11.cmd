run
srun -N2 -n4 --distribution=cyclic -l env | sort
