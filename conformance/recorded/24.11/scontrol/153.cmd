run
scontrol show job $S1 | grep -E '(^| )(JobState|Restarts|Requeue)='
