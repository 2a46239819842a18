run capture=S5
sbatch --parsable -J five -N2 --wrap 'sleep 300'
