run capture=A5
sbatch --parsable --hold --array=1-7:2 -J arr --wrap true
