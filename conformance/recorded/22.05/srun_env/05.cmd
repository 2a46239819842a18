run
srun -N2 -n3 -l env | sort
