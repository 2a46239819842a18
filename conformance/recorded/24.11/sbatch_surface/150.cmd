run
sbatch --hold --tres-per-task=bogus=1 --wrap true
