run
scontrol update PartitionName=nosuch MaxTime=10
