run capture=J2
sbatch --parsable --wrap 'sleep 1'
