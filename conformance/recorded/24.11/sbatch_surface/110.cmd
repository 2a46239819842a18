run
sbatch --hold -B x --wrap true
