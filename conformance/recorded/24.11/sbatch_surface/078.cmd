run
SBATCH_GRES=gpu:1 sbatch --hold --wrap true
