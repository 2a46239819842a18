run capture=C2
sbatch --parsable -J step2 -o chain-%j.out --dependency=afterok:$C1 --wrap 'echo step2'
