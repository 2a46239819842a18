run capture=J1
sbatch --parsable -J run1 -t 20 --wrap 'sleep 300'
