run capture=A12
sbatch --parsable --hold --mem=1G -t 2-00:00:00 --wrap true
