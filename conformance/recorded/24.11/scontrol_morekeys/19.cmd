run
scontrol update NodeName=node2 State=RESUME
