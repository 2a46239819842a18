run
scontrol show reservation a1
