run capture=B1
sbatch --parsable --begin=now+1hour --wrap true
