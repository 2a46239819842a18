run
scontrol update PartitionName=debug TRESBillingWeights=bogus=1
