run
sbatch --hold --hint=nomultithread --ntasks-per-core=1 --wrap true
