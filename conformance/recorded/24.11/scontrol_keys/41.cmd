run
scontrol update PartitionName=debug MaxCPUsPerNode=2
