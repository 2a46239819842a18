run capture=O4
sbatch --parsable --hold --cores-per-socket=2 --sockets-per-node=1 --ntasks-per-core=1 --ntasks-per-socket=2 -B 1:2:1 --wrap true
