run
echo hi | srun -n2 -l --input=1 cat | sort
