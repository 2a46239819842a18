run
scontrol show reservation c1
