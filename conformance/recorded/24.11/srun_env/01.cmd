run
srun -l env | sort
