run
squeue -h -o %i,%T -j 999999
