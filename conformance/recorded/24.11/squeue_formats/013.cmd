run capture=J7
sbatch --parsable -J arr --array=1-3 -o arr-%A_%a.out --wrap 'sleep 300'
