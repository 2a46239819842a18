run
scontrol show reservation t1
