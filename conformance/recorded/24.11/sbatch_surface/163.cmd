run
sbatch --hold --get-user-env=10x --wrap true
