run
srun --jobid=$J -n1 printenv SLURM_JOB_ID SLURM_STEP_ID
