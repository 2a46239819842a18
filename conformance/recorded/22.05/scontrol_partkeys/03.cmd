run
scontrol update PartitionName=debug RootOnly=NO DisableRootJobs=YES
