run
srun -N2 --ntasks-per-node=2 -l env | sort
