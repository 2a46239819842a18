run
scontrol show job $S3
