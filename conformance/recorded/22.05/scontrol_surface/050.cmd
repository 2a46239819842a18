run
SCONTROL_FUTURE=1 scontrol show node node1
