run
scontrol show reservation nosuch
