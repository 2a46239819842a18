run
sbatch --usage
