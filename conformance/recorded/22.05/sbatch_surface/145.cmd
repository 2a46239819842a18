run capture=O13
sbatch --parsable --hold --no-kill=off --wrap true
