run
scontrol update PartitionName=debug AllowGroups=root,spurtest ExclusiveUser=YES LLN=YES MaxCPUsPerNode=2 OverTimeLimit=5 DisableRootJobs=YES
