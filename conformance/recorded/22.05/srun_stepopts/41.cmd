run
srun -Z -w node[1-2] -n2 -l printenv SLURMD_NODENAME | sort
