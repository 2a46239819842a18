run
scontrol update PartitionName=debug Hidden=maybe
