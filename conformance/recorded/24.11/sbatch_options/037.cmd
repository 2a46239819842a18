run capture=A14
sbatch --parsable --hold -t 1:02:03 --wrap true
