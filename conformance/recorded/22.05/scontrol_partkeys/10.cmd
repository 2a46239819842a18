run
scontrol update PartitionName=debug CpuBind=cores
