run
scontrol show job $J1 -V
