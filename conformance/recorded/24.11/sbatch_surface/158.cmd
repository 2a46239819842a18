run
sbatch --hold --gpu-bind=closest --gpu-freq=low --wrap true
