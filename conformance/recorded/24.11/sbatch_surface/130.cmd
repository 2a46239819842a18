run
sbatch --hold --prefer=nosuch --wrap true
