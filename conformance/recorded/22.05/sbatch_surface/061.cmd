run capture=E6
SBATCH_SIGNAL=B:USR2@90 SBATCH_WAIT_ALL_NODES=1 sbatch --parsable --hold --wrap true
