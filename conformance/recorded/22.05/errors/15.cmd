run
sbatch -n 0 --wrap true
