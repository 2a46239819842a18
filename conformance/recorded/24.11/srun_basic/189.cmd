run
srun --mpi=list
