run capture=J2
sbatch --parsable -w node2 -n2 --wrap 'sleep 300'
