run capture=O3
sbatch --parsable --hold --thread-spec=1 --wrap true
