run
scontrol show job $U1
