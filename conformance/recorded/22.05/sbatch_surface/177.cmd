run
sbatch --hold --nodefile=missing.txt --wrap true
