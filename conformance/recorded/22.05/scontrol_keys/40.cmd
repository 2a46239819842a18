run
scontrol update PartitionName=debug LLN=NO
