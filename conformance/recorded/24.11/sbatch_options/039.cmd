run capture=A16
sbatch --parsable --hold -t UNLIMITED --wrap true
