run
scontrol show job $W1
