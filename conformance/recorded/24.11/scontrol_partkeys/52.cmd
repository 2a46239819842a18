run
scontrol update PartitionName=debug Nodes=ALL
