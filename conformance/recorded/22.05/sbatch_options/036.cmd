run capture=A13
sbatch --parsable --hold -t 90 --wrap true
