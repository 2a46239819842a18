run capture=A9
sbatch --parsable --hold --dependency=afterany:$A1:$A2,afterok:$A3 --wrap true
