run
scontrol show licenses
