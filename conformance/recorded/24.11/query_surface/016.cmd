run
squeue -i abc
