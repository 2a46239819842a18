run
scontrol -d -o show job $S5
