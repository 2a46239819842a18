run
SCONTROL_ALL=1 scontrol show partition debug
