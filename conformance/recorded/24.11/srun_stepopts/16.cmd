run
ulimit -S -n 123; srun -n1 --propagate=RLIMIT_NOFILE sh -c 'ulimit -n'
