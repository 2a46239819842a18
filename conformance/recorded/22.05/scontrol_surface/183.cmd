run
scontrol show slurmd
