run as=spurtest
scontrol update PartitionName=debug GraceTime=3
