run
scontrol update PartitionName=debug MaxTime=INFINITE DefaultTime=NONE MaxNodes=UNLIMITED
