run
sbatch --hold --ntasks-per-gpu=1 --wrap true
