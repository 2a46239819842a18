run
sbatch -n 9 --wrap true
