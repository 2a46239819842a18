run
scontrol show job ${R1}_2 | grep -E '(^| )(JobId|ArrayJobId|ArrayTaskId|JobState)='
