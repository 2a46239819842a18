run
scontrol update PartitionName=debug OverSubscribe=NO
