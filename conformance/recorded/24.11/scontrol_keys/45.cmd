run
scontrol update PartitionName=debug Nodes=node9
