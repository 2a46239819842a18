run
sbatch --time=1-00:00:00:00 --wrap true
