run
scontrol update PartitionName=debug DefMemPerCPU=400
