run
scontrol update PartitionName=debug ReqResv=NO
