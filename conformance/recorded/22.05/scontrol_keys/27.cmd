run
scontrol update PartitionName=debug MaxNodes=bogus
