run capture=J1
sbatch --parsable --wrap 'sleep 300'
