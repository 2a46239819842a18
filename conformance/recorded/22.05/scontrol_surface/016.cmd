run
scontrol show job -d -o $J1
