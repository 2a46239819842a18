run capture=B3
sbatch --parsable --begin=now --wrap true
