run
srun -w ./hosts -n4 -l printenv SLURMD_NODENAME | sort
