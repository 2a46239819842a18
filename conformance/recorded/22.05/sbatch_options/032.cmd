run capture=A11
sbatch --parsable --hold --priority=100 --wrap true
