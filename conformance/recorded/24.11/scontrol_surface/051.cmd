run
SCONTROL_LOCAL=1 scontrol show partition debug
