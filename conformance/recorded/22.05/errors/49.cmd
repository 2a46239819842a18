run capture=R1
sbatch --parsable --wrap 'sleep 300'
