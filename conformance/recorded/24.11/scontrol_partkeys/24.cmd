run
scontrol update PartitionName=debug DenyQos=normal
