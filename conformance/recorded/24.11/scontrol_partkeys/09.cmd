run
scontrol update PartitionName=debug Alternate=debug
