run capture=J2
sbatch -J myname --wrap 'sleep 300'
