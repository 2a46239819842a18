run
sbatch --begin=notatime --wrap true
