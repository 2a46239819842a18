run
srun -n1 --propagate=core true
