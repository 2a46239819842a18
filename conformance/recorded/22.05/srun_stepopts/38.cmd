run
SLURM_HOSTFILE=nohosts srun -m arbitrary -n2 printenv SLURMD_NODENAME
