run
scontrol show node nosuch
