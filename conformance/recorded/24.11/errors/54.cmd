run as=spurtest
scontrol update NodeName=node1 State=DRAIN Reason=x
