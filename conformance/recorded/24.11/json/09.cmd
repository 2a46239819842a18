run capture=J2
sbatch --parsable -J beta --hold --wrap 'sleep 300'
