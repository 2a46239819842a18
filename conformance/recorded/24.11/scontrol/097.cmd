run
scontrol update JobId=$S1 JobName=one-renamed
