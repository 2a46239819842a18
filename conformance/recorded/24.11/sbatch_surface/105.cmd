run
sbatch --hold --core-spec=abc --wrap true
