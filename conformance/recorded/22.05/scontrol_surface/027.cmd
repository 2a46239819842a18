run
scontrol show partition -- -o
