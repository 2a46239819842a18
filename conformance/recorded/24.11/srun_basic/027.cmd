run
srun -N2 -n4 -m block -l sh -c 'echo $SLURMD_NODENAME $SLURM_LOCALID' | sort
