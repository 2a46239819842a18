run
srun -n1 --task-prolog=$PWD/tpfail.sh echo not reached
