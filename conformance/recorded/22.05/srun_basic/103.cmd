run
srun -n4 -l --multi-prog mp.conf | sort
