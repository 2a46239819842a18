run
sbatch --parsable --hold --wrap true
