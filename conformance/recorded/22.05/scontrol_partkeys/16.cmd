run
scontrol update PartitionName=debug Shared=YES:2
