run
srun -t 5 sh -c 'squeue -h -j $SLURM_JOB_ID -o "%l"'
