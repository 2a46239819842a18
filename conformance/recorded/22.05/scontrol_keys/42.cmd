run
scontrol update PartitionName=debug OverTimeLimit=5
