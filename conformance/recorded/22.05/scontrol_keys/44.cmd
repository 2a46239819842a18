run
scontrol update PartitionName=debug Nodes='node[1-4]'
