run
SLURM_HOSTFILE=hosts srun -n4 -l printenv SLURMD_NODENAME | sort
