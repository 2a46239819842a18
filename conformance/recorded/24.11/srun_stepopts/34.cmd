run
SLURM_HOSTFILE=hosts2 srun -m arbitrary -n2 -l printenv SLURMD_NODENAME | sort
