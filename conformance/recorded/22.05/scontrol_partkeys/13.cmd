run
scontrol update PartitionName=debug JobDefaults=DefCpuPerGPU=2,DefMemPerGPU=100
