run
squeue -t all --sort=i -o '%.18i %.10M'
