run capture=S4 as=spurtest
sbatch --parsable -J four --dependency=afterok:$S1 --wrap 'sleep 300'
