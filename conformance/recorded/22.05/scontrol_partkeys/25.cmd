run
scontrol update PartitionName=debug QOS=
