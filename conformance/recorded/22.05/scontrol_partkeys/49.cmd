run
scontrol update PartitionName=debug OverTimeLimit=bogus
