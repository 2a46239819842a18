run
scontrol -o show partition debug
