run
srun --jobid=$J --overlap -n1 printenv SLURM_STEP_ID
