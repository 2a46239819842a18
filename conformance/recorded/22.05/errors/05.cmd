run
sbatch -p nosuch --wrap true
