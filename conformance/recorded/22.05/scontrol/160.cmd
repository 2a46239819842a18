run
scontrol update NodeName=node3 State=DRAIN
