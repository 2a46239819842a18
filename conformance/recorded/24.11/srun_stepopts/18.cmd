run
ulimit -S -s 4096; srun -n1 --propagate=STACK,CORE sh -c 'ulimit -s'
