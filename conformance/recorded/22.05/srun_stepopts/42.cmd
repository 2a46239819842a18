run
srun -Z -w node1 -n1 env | sed -n 's/^\(SLURM[A-Z_0-9]*\)=.*/\1/p' | sort
