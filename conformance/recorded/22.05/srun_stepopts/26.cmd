run
srun -n1 --signal=B:USR1 true
