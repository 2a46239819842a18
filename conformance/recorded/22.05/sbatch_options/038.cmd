run capture=A15
sbatch --parsable --hold -t 3-4 --wrap true
