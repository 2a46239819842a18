run
sbatch --hold --cluster-constraint=foo --wrap true
