run
scontrol update PartitionName=debug Hidden=NO
