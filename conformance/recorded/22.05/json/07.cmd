run capture=J1
sbatch --parsable -J alpha -t 10 --wrap 'sleep 300'
