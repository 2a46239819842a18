run
scontrol update PartitionName=debug MaxTime=60
