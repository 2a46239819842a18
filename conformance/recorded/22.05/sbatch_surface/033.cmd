run
scontrol show job ${P8}_1 | grep -E '(^| )(JobName|ArrayTaskId|Dependency|NumNodes|MinCPUsNode|StartTime|JobState)='
