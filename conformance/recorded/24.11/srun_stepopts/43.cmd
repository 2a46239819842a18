run as=spurtest
srun -Z -w node1 true
