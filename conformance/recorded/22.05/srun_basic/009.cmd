run
srun -n4 -l printenv SLURM_PROCID | sort
