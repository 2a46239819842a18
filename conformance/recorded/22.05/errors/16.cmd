run
sbatch -N 0 --wrap true
