run capture=A10
sbatch --parsable --hold --dependency=afterok:$A1?afterok:$A2 --wrap true
