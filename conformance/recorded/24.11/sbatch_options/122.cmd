run
scontrol show job $B2 | grep -E '(^| )(EligibleTime|StartTime)='
