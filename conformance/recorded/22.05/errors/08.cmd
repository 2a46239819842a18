run
sbatch -N 5 --wrap true
