run
sbatch -c 3 --wrap true
