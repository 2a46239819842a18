run capture=J7
sbatch --parsable -J dep --dependency=afterok:$J1 --wrap 'sleep 300'
