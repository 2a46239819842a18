run
sbatch --hold --wait-all-nodes=2 --wrap true
