run
SBATCH_BATCH=feat SBATCH_CONTAINER=/nonexistent SBATCH_CONTAINER_ID=c1 sbatch --hold --wrap true
