run
srun --jobid=$H -l printenv SLURMD_NODENAME | sort
