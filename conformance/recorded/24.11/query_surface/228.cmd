run
scontrol update NodeName=node4 State=RESUME
