run
sbatch -vvv --hold -J v3 --wrap true
