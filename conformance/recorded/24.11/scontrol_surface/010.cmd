run capture=J3 as=spurtest
sbatch --parsable -J mine -t 30 --begin=now+3600 --wrap 'sleep 300'
