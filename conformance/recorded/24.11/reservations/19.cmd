run
scontrol show reservation m1
