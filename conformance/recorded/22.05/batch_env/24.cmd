run
scontrol show job $E3
