run
scontrol update PartitionName=debug Default=YES
