run
squeue -n myname
