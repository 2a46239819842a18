run
scontrol --federation show partition debug
