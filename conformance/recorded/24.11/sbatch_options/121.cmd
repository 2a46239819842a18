run capture=B2
sbatch --parsable --begin=2099-01-01T00:00:00 --wrap true
