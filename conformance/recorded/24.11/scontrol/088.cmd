run
scontrol update JobId=$S2 StartTime=now+1hour
