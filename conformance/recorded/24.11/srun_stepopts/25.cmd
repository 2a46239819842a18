run
srun -n1 --signal=BOGUS true
