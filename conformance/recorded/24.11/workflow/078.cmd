run capture=F1
sbatch --parsable -J fails -o fails-%j.out --wrap 'sleep 3; exit 1'
