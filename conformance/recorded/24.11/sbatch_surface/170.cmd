run
sbatch --hold --gid=nosuchgroup --wrap true
