run as=spurtest
scontrol uhold $S4
