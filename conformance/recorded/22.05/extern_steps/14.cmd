run
srun -N2 -n2 -l squeue -s -h -o '%i %j %N' | sort
