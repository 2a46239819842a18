run
srun -n2 -l -u echo unbuffered | sort
