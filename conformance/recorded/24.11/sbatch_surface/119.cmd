run
sbatch --hold --hint=bogus --wrap true
