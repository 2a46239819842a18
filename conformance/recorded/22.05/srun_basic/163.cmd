run
timeout 10 srun -c3 true
