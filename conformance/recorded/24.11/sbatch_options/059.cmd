run
scontrol show job $V1 | grep -E '(^| )(Partition|Comment|Requeue|JobName)='
