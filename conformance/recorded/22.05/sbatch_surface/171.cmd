run as=spurtest
sbatch --hold --uid=root --wrap true
