run
sbatch --hold -m bogus --wrap true
