run capture=F3
sbatch --parsable -J onok --dependency=afterok:$F1 --wrap 'echo never'
