run
sbatch --hold --constraint='a|' --wrap true
