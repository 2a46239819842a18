run capture=B
sbatch --parsable -J thr -a 1-6%3 -t 10 --hold --wrap 'sleep 300'
