run
scontrol show reservation d1
