run
scontrol show federation
