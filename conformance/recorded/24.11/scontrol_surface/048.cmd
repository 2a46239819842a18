run
scontrol -u 1500 show partition debug
