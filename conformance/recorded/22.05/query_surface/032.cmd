run
squeue -M spur,nosuch
