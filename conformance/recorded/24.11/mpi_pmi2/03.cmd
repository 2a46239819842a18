run
srun --mpi=none -n1 env | grep -E '^(SLURM_MPI_TYPE|PMI_)' | sort
