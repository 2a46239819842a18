run
SLURM_HOSTFILE=hosts srun -m arbitrary -l printenv SLURMD_NODENAME | sort
