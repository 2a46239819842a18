run as=spurtest
sbatch --wrap true
