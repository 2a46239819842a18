run
scontrol show job $T1
