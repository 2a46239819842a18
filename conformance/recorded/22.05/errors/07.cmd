run
sbatch -N 10 --wrap true
