run
srun -c2 -n2 -l env | sort
