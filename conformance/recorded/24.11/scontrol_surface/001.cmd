run
scontrol show steps
