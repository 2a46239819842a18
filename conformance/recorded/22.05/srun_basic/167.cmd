run
srun -t abc true
