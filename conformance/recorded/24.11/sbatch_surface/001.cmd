run
sbatch -v --hold -J v1 -t 5 --wrap true
