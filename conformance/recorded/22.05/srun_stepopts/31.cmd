run
SLURM_HOSTFILE=hosts srun -m arbitrary -n4 -l printenv SLURMD_NODENAME | sort
