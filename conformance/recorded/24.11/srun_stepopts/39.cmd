run
srun -vv -n1 true
