run
srun -p nosuch true
