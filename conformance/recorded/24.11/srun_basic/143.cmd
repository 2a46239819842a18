run as=spurtest
srun -n2 -l pwd | sort
