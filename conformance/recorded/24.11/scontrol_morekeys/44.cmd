run
scontrol show reservation g1
