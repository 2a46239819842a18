run
squeue --user=1500 --sort=i
