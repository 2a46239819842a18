run
scontrol update NodeName=node2 State=DRAIN Reason=draining
