run as=spurtest
srun -J userstep --mem=300 -t 5 -l env | sort
