run
sbatch --hold --propagate=BOGUS --wrap true
