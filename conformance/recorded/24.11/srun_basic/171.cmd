run
timeout 10 srun -N1 -n3 -c2 true
