run
srun sh -c 'exit 3'
