run
scontrol update PartitionName=debug DefMemPerCPU=bogus
