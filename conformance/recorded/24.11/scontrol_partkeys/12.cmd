run
scontrol update PartitionName=debug MaxMemPerNode=1500
