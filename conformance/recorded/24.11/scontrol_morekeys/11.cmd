run
scontrol update NodeName=node2 State=FAIL Reason=failing
