run
srun -n1 --signal=USR1@100000 true
