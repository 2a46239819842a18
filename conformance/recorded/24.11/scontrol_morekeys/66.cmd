run
scontrol show reservation s1
