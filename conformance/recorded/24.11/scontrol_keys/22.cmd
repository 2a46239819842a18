run
scontrol update PartitionName=debug PriorityTier=5
