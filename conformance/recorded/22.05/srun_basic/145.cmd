run
srun -n0 true
