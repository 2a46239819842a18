run
sbatch --hold --gres-flags=bogus --wrap true
