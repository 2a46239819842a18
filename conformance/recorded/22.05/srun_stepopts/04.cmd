run
srun -n1 --task-prolog=tp.sh -l true
