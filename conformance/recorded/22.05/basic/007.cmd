run capture=J3
sbatch --parsable --hold --wrap 'sleep 300'
