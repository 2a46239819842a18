run
scontrol show -o partition
