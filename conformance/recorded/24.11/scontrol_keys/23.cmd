run
scontrol update PartitionName=debug PriorityJobFactor=3
