run
srun -c2 -n2 -l sh -c 'echo $SLURMD_NODENAME $SLURM_CPUS_PER_TASK $SLURM_CPUS_ON_NODE' | sort
