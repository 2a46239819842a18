run
echo hi | srun -n2 -l --input=0 cat | sort
