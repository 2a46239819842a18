run
scontrol show job $V4 | grep -E '(^| )Requeue='
