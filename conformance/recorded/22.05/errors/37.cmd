run
scontrol show partition nosuch
