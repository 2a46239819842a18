run capture=J2 as=spurtest
sbatch --parsable -J beta --wrap 'sleep 300'
