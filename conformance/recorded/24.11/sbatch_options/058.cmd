run capture=V1
SBATCH_PARTITION=debug SBATCH_COMMENT=envcomment SBATCH_NO_REQUEUE=1 SBATCH_HOLD=1 sbatch --parsable --hold --wrap true
