run
sbatch --hold --oom-kill-step --wrap true
