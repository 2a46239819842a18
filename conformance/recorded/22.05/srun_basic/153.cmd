run
srun -Z true
