run
scontrol update PartitionName=debug AllowAccounts=ALL DenyAccounts=acct3
