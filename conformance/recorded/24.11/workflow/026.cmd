run
squeue -h -o %i,%T -j $W1,999999
