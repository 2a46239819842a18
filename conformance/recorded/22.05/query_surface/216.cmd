run
squeue -h -t all -r -o '%i %T' -j $J4 --sort=i
