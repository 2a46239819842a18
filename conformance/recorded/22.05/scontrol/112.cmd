run
scontrol uhold $S2
