run
scontrol --local show partition debug
