run
sbatch --hold -M nosuch --wrap true
