run
scontrol show partitions debug
