run
scontrol show job $S3 | grep -E '(^| )(JobState|Restarts|Requeue)='
