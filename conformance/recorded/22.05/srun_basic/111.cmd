run
srun -J myname sh -c 'echo $SLURM_JOB_NAME; squeue -h -j $SLURM_JOB_ID -o "%j %T"'
