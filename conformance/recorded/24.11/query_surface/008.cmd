run capture=J4
sbatch --parsable -J arr --hold --array=1-10 --wrap 'sleep 300'
