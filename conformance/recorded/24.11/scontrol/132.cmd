run
scontrol requeuehold $S3
