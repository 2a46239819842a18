run capture=J4
sbatch --parsable -J arr --array=1-2 -o arr-%a.out --wrap 'sleep 300'
