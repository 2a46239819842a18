run capture=J
sbatch --parsable --wrap 'sleep 300'
