run
scontrol -o show job $J1
