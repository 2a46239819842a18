run
srun -n -1 true
