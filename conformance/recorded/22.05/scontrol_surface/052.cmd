run
SCONTROL_SIBLING=1 scontrol show partition debug
