run
srun -n2 --ntasks-per-node=1 -l sh -c 'echo $SLURMD_NODENAME $SLURM_NNODES' | sort
