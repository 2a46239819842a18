run
scontrol show job $A5 | grep -E '(^| )(JobId|ArrayJobId|ArrayTaskId)='
