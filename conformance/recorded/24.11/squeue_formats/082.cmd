run
squeue -t all --sort=i -o '%2i %3j %1T'
