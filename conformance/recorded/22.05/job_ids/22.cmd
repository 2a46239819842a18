run
sbatch --gres=gpu:1 --wrap true
