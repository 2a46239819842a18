run
scontrol update PartitionName=debug GraceTime=bogus
