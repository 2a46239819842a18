run
scontrol update NodeName=node2 Extra=extra1
