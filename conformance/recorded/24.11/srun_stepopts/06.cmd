run
srun -n1 --task-prolog=$PWD/nonexistent.sh echo not reached
