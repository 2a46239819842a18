run
ulimit -S -n 123; srun -n1 --propagate=NONE sh -c 'test $(ulimit -n) = 123 && echo same || echo other'
