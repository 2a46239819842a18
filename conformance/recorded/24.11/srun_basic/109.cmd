run
srun -n1 --multi-prog nosuch.conf
