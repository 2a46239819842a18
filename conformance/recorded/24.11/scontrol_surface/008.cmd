run capture=J2
sbatch --parsable -J later -t 30 --begin=now+3600 --wrap 'sleep 300'
