run
scontrol show config | head -3
