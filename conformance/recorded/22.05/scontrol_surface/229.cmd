run
scontrol show frontend
