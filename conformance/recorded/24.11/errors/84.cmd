run
scontrol -o show job $X2
