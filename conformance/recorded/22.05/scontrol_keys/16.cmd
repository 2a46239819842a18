run
scontrol update PartitionName=debug MaxTime=2:00:00
