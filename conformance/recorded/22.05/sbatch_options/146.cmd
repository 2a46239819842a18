run
sbatch --hold -t 2:00:00 --deadline=now+1hour --wrap true
