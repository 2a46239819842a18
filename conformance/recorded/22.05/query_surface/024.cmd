run
squeue --noconvert -O JobID,MinMemory
