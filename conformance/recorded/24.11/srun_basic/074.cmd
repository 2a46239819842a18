run
srun -o single.txt -e single.err sh -c 'echo o; echo e >&2'
