run
sbatch --hold --cpu-freq=bogus --wrap true
