run capture=T1
sbatch --parsable --hold --wrap true
