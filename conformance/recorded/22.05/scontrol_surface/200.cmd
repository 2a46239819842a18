run
squeue -h -r -j $A -o '%i %T' --sort=i
