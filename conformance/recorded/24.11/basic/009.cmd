run capture=J4
sbatch --parsable -N2 --wrap 'sleep 300'
