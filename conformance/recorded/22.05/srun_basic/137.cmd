run
SLURM_TIMELIMIT=7 srun sh -c 'squeue -h -j $SLURM_JOB_ID -o "%l"'
