run
scontrol update PartitionName=debug RootOnly=maybe
