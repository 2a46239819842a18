run
scontrol update PartitionName=debug DefaultTime=30
