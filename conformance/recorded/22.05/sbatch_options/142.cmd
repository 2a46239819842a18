run
sbatch --test-only --parsable --wrap true
