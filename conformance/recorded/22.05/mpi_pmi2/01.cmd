run as=spurtest
srun -N2 -n3 -l bash -c 'echo $PMI_JOBID $PMI_RANK $PMI_SIZE ${PMI_FD:+fd} $SLURM_MPI_TYPE' | sort
