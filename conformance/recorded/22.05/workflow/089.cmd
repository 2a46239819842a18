run
scontrol show job $F3 | grep -E '(^| )(JobState|Reason|Dependency)='
