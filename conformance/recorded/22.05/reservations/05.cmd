run
scontrol show reservation r1
