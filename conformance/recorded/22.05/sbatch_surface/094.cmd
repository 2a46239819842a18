run
SBATCH_TRES_PER_TASK=cpu=2 SBATCH_TRES_BIND=gres/gpu:closest SBATCH_THREADS_PER_CORE=1 sbatch --hold --wrap true
