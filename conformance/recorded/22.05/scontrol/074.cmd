run
scontrol update JobId=$S2 JobName=renamed
