run
sbatch --hold --batch=feat --wrap true
