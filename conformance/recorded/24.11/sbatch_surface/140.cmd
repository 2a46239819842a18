run
sbatch --hold --stepmgr --wrap true
