run
scontrol update PartitionName=debug MaxCPUsPerNode=bogus
