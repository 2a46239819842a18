run
scontrol show job $A2
