run
timeout 10 srun -n9 true
