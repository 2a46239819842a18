run
scontrol update PartitionName=debug MaxNodes=3
