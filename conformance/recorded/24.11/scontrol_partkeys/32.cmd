run
scontrol update PartitionName=debug PreemptMode=bogus
