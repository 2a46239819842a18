run
sbatch --hold --profile=bogus --wrap true
