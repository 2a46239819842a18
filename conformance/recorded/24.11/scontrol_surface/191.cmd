run
scontrol -o show job $B
