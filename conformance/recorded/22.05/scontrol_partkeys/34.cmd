run
scontrol update PartitionName=debug DefMemPerNode=bogus
