run
sbatch --hold --extra=foo=bar --wrap true
