run
sbatch --test-only -N 10 --wrap true
