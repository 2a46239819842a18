run
scontrol update PartitionName=debug AllocNodes=ALL Alternate= CpuBind=off DefMemPerNode=0 MaxMemPerNode=0 JobDefaults= MaxCPUsPerSocket=UNLIMITED PreemptMode=OFF Shared=NO TRESBillingWeights= DenyAccounts=
