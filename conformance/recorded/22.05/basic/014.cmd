run capture=J6
sbatch --parsable --array=1-3 --wrap 'sleep 300'
