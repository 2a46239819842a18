run
scontrol update PartitionName=debug PreemptMode=GANG
