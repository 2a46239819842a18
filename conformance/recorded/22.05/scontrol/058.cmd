run
scontrol show hostlist a1,b2,a2,b1
