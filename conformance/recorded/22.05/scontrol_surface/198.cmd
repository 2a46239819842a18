run capture=A
sbatch --parsable -J arr -a 1-4 -t 10 --wrap 'sleep 300'
