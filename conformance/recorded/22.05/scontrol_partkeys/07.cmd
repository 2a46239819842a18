run
scontrol update PartitionName=debug AllocNodes=node1,node2
