run capture=A7
sbatch --parsable --hold -a 1,3,5 --wrap true
