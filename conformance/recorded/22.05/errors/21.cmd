run
sbatch --dependency=bogus:1 --wrap true
