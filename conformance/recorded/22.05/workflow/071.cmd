run capture=C3
sbatch --parsable -J step3 -o chain-%j.out --dependency=afterok:$C2 --wrap 'echo step3'
