run
srun -n2 -l sh -c 'exit $SLURM_PROCID'
