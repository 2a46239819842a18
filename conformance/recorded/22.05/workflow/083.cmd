run capture=F5
sbatch --parsable -J anyway --dependency=afterany:$F1 -o fails-%j.out --wrap 'echo anyway'
