run
scontrol update PartitionName=debug AllowQos=normal
