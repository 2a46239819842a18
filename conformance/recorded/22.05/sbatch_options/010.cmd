run
scontrol show job $A1
