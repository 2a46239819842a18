run
srun -N0 true
