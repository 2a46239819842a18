run
sbatch --hold --begin=now+1hour --deadline=now+30minutes --wrap true
