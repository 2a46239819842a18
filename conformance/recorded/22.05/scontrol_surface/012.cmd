run capture=J4 as=spurtest
sbatch --parsable -J mine2 -t 30 --begin=now+3600 --wrap 'sleep 300'
