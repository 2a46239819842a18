run
scontrol update PartitionName=debug LLN=maybe
