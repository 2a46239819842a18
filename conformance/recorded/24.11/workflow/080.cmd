run capture=F2
sbatch --parsable -J onfail -o fails-%j.out --dependency=afternotok:$F1 --wrap 'echo cleanup'
