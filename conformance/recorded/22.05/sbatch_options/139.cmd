run
sbatch --test-only --wrap true
