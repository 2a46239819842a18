run
scontrol requeuehold ${A}_3
