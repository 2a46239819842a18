run
scontrol update JobId=$S2 Requeue=0
