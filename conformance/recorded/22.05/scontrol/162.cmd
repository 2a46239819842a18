run
scontrol update NodeName=nosuch State=DRAIN Reason=x
