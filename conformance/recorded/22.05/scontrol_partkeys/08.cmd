run
scontrol update PartitionName=debug AllowAccounts=acct1,acct2
