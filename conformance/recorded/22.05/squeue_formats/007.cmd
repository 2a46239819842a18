run capture=J4
sbatch --parsable -J delta --dependency=afterok:$J1 -c 2 -t 1:00:00 --wrap 'sleep 300'
