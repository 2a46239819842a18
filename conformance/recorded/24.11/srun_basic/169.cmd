run
srun -w nosuch true
