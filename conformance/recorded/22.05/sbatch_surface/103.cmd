run capture=O2
sbatch --parsable --hold -S 1 --wrap true
