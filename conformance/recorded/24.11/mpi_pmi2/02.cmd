run
srun -n1 env | grep -E '^(SLURM_MPI_TYPE|PMI_(JOBID|RANK|SIZE|SPAWNED))=' | sort
