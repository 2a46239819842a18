run
scontrol top
