run
srun -N2 -n3 -l sh -c 'echo $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME' | sort
