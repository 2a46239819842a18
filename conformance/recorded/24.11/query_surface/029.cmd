run
squeue -M spur
