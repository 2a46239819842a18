run
scontrol update NodeName=node3 State=BOGUS Reason=x
