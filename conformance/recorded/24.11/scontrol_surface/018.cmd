run
scontrol show partition -o debug
