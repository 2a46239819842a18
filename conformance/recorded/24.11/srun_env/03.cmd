run
srun -N2 -n4 -l env | sort
