run
scontrol show conf | grep -E '^(AccountingStorageType|AuthType|ClusterName|MpiDefault|ProctrackType|TaskPlugin) '
