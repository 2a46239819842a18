run
squeue --me --sort=i
