run
scontrol requeuehold $S5
