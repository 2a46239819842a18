run compare=rc
srun -N2 -n4 sh -c 'exit $SLURM_PROCID'
