run capture=V4
SBATCH_OPEN_MODE=append SBATCH_DEBUG=0 SBATCH_REQUEUE=1 sbatch --parsable --hold --wrap true
