run
scontrol update PartitionName=debug AllowGroups=root
