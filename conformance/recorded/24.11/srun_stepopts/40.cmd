run
srun -vvv -n2 -N2 true
