run
scontrol update PartitionName=debug DefMemPerNode=1000
