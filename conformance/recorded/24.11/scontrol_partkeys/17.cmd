run
scontrol update PartitionName=debug TRESBillingWeights=CPU=1.0,Mem=0.25G
