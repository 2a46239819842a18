run
squeue --sort=i --format='%i %T %R'
