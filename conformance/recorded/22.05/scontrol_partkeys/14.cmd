run
scontrol update PartitionName=debug MaxCPUsPerSocket=1
