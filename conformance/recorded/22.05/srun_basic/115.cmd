run
srun -D /nonexistent pwd
