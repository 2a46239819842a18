run
sbatch --test-only -N2 -n4 --wrap true
