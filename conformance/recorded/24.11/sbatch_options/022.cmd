run capture=A6
sbatch --parsable --hold --array=0-5%2 --wrap true
