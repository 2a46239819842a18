run
scontrol update PartitionName=debug OverTimeLimit=UNLIMITED MaxCPUsPerNode=UNLIMITED AllowGroups=ALL
