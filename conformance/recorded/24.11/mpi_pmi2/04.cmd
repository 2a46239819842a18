run
SLURM_MPI_TYPE=none srun -n1 env | grep -E '^(SLURM_MPI_TYPE|PMI_)' | sort
