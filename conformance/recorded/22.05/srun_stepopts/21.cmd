run
srun -n1 --propagate=ALL,CORE true
