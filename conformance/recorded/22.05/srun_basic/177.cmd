run
srun --mpi=bogus true
