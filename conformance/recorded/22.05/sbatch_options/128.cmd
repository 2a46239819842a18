run
scontrol show job $B4 | grep -E '(^| )(JobState|Deadline)='
