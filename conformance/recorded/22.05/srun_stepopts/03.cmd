run
srun -n2 -l --task-prolog=$PWD/tp.sh true | sort
