run
scontrol update PartitionName=debug MinNodes=1
