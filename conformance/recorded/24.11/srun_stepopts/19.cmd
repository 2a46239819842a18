run
srun -n1 --propagate=BOGUS true
