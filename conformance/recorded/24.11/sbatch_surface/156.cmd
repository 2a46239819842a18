run
sbatch --hold --mem-per-gpu=100 --wrap true
