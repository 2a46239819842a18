run
srun -n2 sh -c 'if [ $SLURM_PROCID = 1 ]; then exit 4; fi'
