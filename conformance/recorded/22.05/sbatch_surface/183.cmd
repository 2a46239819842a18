run
sbatch --help
