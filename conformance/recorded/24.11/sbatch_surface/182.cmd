run
sbatch --hold --export-file=missing.txt --wrap true
