run
scontrol update PartitionName=debug DisableRootJobs=NO
