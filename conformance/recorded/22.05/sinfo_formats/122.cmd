run
sinfo -O PartitionName,CPUsState,NodeAIOT,DefaultTime,PriorityTier
