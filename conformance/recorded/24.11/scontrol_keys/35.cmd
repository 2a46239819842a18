run
scontrol update PartitionName=debug GraceTime=10
