run
srun -N2 -n2 sh -c 'exit 6' 2>&1 | sort
