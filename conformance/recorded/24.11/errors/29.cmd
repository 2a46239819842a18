run
squeue -j abc
