run capture=A
sbatch --parsable -J arr --hold --array=1-6 -t 30 --wrap 'sleep 300'
