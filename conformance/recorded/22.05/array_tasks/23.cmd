run
scontrol show job $A
