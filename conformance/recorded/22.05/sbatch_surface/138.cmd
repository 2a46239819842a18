run
sbatch --hold --oom-kill-step=2 --wrap true
