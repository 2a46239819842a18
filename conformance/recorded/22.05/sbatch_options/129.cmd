run capture=B5
sbatch --parsable --hold --deadline=2099-01-01T00:00:00 --wrap true
