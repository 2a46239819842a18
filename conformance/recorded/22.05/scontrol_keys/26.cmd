run
scontrol update PartitionName=debug MaxTime=bogus
