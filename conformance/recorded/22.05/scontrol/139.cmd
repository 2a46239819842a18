run
scontrol release $S3
