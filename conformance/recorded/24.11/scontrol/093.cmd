run
scontrol update JobId=$S2 Partition=nosuch
