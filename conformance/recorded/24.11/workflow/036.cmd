run
scontrol show job $W2 | grep -E '(^| )(JobState|ExitCode|Requeue|JobName)='
