run
sbatch --wrap true extra-arg
