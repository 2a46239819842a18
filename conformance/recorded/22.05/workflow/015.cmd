run
squeue -h -o %i,%T -j $W1
