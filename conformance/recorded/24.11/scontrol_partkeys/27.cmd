run
scontrol update PartitionName=debug Alternate=nosuch
