run
srun -w node3 printenv SLURMD_NODENAME
