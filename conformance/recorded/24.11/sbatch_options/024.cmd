run
scontrol show job $A6 | grep -E '(^| )(ArrayTaskThrottle|ArrayTaskId)='
