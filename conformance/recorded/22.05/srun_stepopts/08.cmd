run
srun -n2 -N2 --task-epilog=./te.sh --task-prolog=$PWD/tp.sh true; cat epi.0 epi.1
