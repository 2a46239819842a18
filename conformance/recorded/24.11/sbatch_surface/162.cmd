run capture=O15
sbatch --parsable --hold --get-user-env --wrap true
