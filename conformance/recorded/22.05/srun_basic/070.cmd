run
srun -n2 -o tasks-%j.txt sh -c 'echo task $SLURM_PROCID'
