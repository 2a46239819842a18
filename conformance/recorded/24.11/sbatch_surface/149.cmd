run
sbatch --hold --tres-bind=gres/gpu:closest --wrap true
