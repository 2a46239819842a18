run
squeue -t BOGUS
