run capture=BL
sbatch --parsable -N4 --exclusive -J blocker --wrap 'sleep 300'
