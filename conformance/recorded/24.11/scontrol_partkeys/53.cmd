run
scontrol show partition debug
