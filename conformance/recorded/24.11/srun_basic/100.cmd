run
srun -v -N2 -n2 true 2>&1 | sort
