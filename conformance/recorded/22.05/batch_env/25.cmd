run
scontrol show job $E5
