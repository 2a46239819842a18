run capture=T2
sbatch --parsable --hold --wrap true
