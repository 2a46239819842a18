run
srun -n2 -l --task-epilog=$PWD/te.sh true
