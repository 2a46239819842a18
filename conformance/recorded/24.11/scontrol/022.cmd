run
scontrol show job $S1 $S2
