run
srun -N2 --ntasks-per-node=2 -l sh -c 'echo $SLURM_LOCALID $SLURMD_NODENAME $SLURM_NTASKS' | sort
