run
echo hi | srun -n2 -l cat | sort
