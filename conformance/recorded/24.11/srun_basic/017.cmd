run
srun -N3 -l sh -c 'echo $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME' | sort
