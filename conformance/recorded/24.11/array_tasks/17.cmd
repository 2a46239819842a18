run
scontrol requeuehold ${A}_5
