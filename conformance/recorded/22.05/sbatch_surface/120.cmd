run
sbatch --hold --mem-bind=bogus --wrap true
