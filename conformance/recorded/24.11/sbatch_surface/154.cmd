run
sbatch --hold --gpus-per-task=1 --wrap true
