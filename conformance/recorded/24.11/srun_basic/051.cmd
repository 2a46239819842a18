run
srun -N2 -n4 -l sh -c 'exit $SLURM_PROCID' 2>&1 | sort
