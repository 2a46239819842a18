run
sbatch --hold -L nosuchlicense --wrap true
