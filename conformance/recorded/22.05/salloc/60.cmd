run
SLURM_JOB_ID=$H srun -l printenv SLURM_STEP_ID | sort
