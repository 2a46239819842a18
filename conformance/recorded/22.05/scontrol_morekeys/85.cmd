run
scontrol show reservation
