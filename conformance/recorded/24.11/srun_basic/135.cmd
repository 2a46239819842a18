run
srun -t 1-0 sh -c 'squeue -h -j $SLURM_JOB_ID -o "%l"'
