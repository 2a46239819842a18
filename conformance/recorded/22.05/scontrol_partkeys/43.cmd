run
scontrol update PartitionName=debug Nodes=node1,node3
