run capture=S2
sbatch --parsable -J two --hold --wrap 'sleep 300'
