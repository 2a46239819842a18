run
sbatch --hold --no-kill=bogus --wrap true
