run capture=A8
sbatch --parsable --hold --dependency=singleton -J single --wrap true
