run
scontrol show node node4
