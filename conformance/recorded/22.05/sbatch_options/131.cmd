run
sbatch --deadline=notatime --wrap true
