run
ulimit -S -n 123; srun -n1 --propagate sh -c 'ulimit -n'
