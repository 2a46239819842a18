run
squeue -h -j $O16 -o '%i %u %g'
