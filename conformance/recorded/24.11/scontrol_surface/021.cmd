run
scontrol show partition debug -d -o
