run
scontrol show bbstat
