run
scontrol show job $B1 | grep -E '(^| )(JobState|SubmitTime|EligibleTime|StartTime)='
