run capture=J1
sbatch --parsable -w node1 -n1 --wrap 'sleep 300'
