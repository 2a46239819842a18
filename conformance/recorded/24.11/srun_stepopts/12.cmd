run
ulimit -S -c 0; srun -n1 sh -c 'ulimit -c'
