run
squeue -s -h -j $J -o %i
