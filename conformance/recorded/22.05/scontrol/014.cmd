run
scontrol -o show job $S1
