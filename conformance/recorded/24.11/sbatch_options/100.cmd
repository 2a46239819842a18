file
sub/slurm-$C1.out
