run capture=B4
sbatch --parsable --deadline=now+2hours -t 10 --wrap true
