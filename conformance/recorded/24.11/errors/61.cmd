run capture=U1 as=spurtest
sbatch --parsable --wrap 'sleep 300'
