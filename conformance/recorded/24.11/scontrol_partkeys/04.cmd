run
sbatch --wrap true
