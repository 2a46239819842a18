run
scontrol update PartitionName=debug RootOnly=YES
