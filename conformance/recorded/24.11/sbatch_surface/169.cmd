run
sbatch --hold --uid=nosuchuser --wrap true
