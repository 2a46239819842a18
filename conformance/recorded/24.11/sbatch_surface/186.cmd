run
sbatch --version
