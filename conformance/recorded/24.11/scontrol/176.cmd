run
scontrol update PartitionName=debug State=DOWN
