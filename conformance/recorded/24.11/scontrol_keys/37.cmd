run
scontrol update PartitionName=debug MaxMemPerCPU=800
