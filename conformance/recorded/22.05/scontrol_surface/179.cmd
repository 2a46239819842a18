run
scontrol show aliases
