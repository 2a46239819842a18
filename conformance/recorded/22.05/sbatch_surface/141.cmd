run capture=O11
sbatch --parsable --hold --switches=2@1:00 --wrap true
