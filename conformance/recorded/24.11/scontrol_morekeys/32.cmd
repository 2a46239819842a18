run
scontrol update NodeName=node1 State=RESUME
