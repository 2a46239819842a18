run capture=F6
sbatch --dependency=afterok:$F1 --wrap true
