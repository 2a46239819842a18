run as=spurtest
scontrol suspend $S5
