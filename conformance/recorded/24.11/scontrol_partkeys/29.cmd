run
scontrol update PartitionName=debug JobDefaults=bogus=1
