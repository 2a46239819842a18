run
srun -N2 -n4 -l sh -c 'echo $SLURM_LOCALID $SLURM_NODEID $SLURMD_NODENAME' | sort
