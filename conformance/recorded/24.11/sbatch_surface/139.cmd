run
sbatch --hold --segment=1 --wrap true
