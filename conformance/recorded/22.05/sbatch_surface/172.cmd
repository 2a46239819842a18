run capture=O16
sbatch --parsable --hold --uid=spurtest --gid=spurtest --wrap true
