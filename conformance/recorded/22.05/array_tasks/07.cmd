run
scontrol show job ${A}_3
