run
srun -V
