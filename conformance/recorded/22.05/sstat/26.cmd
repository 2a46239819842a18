run capture=F
sbatch --parsable -J done --wrap true
