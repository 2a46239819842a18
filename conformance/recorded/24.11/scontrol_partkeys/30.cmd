run
scontrol update PartitionName=debug MaxCPUsPerSocket=bogus
