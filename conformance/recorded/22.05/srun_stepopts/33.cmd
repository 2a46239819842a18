run
SLURM_HOSTFILE=hosts srun -m arbitrary -n3 -l printenv SLURMD_NODENAME | sort
