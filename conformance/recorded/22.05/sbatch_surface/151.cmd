run
sbatch --hold --gpus=1 --wrap true
