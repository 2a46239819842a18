run
srun -N2 -n4 --distribution=cyclic -l sh -c 'echo $SLURMD_NODENAME $SLURM_LOCALID' | sort
