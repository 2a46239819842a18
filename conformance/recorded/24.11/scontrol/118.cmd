run
scontrol release abc
