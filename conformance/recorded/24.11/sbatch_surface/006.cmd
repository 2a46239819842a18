run
sbatch -vv --hold -J v2 --wrap true
