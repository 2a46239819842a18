run
scontrol -o show job $J2
