run
timeout 10 srun -N5 true
