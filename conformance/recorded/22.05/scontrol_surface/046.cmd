run
scontrol -v show partition debug
