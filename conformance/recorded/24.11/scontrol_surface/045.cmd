run
scontrol -M spur show partition debug
