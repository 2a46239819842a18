run
scontrol update PartitionName=debug State=UP MaxTime=INFINITE
