run
squeue -u spurtest -o '%i %u %g %T'
