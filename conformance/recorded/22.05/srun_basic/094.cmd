run
printf 'l1\nl2\n' | srun -n2 -N2 -l cat | sort
