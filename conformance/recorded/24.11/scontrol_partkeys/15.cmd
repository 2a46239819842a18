run
scontrol update PartitionName=debug PreemptMode=REQUEUE
