run
scontrol update NodeName=node2 Weight=7
