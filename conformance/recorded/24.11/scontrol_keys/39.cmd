run
scontrol update PartitionName=debug ExclusiveUser=NO
