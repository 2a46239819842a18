run
SCONTROL_FEDERATION=1 scontrol show partition debug
