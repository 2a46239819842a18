run
sbatch --hold --gpus-per-socket=1 --sockets-per-node=1 --wrap true
