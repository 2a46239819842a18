file
slurm-$J1.out
