run
scontrol update NodeName=node4 State=DRAIN Reason=qs
