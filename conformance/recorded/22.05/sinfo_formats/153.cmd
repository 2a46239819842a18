run
scontrol update NodeName=node5 State=RESUME
