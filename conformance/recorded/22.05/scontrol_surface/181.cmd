run
scontrol show configuration | tail -n 4
