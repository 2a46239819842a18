run as=spurtest
ulimit -S -n 200; srun -n1 sh -c 'ulimit -n'
