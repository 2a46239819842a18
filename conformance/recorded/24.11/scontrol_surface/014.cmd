run
scontrol show nodes -o
