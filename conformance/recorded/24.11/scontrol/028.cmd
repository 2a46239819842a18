run
scontrol show job ${S1}_3
