run
SLURM_HOSTFILE=hosts srun -m arbitrary -n4 -l printenv SLURM_NODEID SLURM_LOCALID | sort
