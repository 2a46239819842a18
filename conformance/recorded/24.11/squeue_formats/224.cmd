run
squeue -t all --sort=-u,-i
