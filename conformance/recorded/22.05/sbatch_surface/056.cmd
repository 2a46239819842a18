run capture=E4
SBATCH_NO_KILL=set SBATCH_OVERCOMMIT=1 SBATCH_SPREAD_JOB=1 SBATCH_USE_MIN_NODES=1 sbatch --parsable --hold -n 4 --wrap true
