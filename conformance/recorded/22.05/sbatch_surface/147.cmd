run
sbatch --hold --tres-per-task=cpu=2 --wrap true
