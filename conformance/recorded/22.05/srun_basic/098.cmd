run
srun -v true
