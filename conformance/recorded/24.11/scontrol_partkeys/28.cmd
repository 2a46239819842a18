run
scontrol update PartitionName=debug CpuBind=bogus
