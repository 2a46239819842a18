run
srun -n1 --task-epilog=./nonexistent.sh echo epilog missing
