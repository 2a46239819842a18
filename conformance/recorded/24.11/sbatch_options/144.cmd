run
sbatch --reservation=nosuch --wrap true
