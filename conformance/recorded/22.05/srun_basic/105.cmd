run
srun -n2 -l --multi-prog mp.conf
