run
sbatch --dependency=afterok:999999 --wrap true
