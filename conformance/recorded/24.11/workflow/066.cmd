run
sbatch --wait -p nosuch --wrap true
