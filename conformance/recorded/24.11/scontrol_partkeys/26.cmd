run
scontrol update PartitionName=debug AllowQos=ALL
