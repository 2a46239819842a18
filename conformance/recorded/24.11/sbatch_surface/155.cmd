run
sbatch --hold --cpus-per-gpu=1 --wrap true
