run
ulimit -S -n 123; srun -n1 sh -c 'ulimit -n'
