run
sbatch -v -Q --hold --wrap true
