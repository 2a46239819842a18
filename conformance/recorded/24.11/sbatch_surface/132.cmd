run
sbatch --hold --mcs-label=foo --wrap true
