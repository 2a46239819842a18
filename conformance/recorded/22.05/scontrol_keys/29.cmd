run
scontrol update PartitionName=debug OverSubscribe=bogus
