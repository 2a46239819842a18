run
scontrol show job $F4 | grep -E '(^| )(JobState|Reason|Dependency)='
