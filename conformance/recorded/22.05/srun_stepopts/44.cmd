run
srun -Z -w node1 -x node2 true
