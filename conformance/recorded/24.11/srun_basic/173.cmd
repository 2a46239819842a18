run
timeout 10 srun --ntasks-per-node=3 true
