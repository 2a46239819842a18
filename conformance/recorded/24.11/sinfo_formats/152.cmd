run
scontrol update NodeName=node2,node4 State=RESUME
