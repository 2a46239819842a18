run
scontrol show job $A3 | grep -E '(^| )(OverSubscribe|Requeue|Partition|JobName)='
