run capture=J1
sbatch --parsable --reservation=r1 --wrap 'sleep 300'
