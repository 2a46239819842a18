run
srun -n2 sh -c 'exit 5'
