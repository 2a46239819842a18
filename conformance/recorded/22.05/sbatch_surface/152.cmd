run
sbatch --hold -G 1 --gpus-per-node=1 --wrap true
