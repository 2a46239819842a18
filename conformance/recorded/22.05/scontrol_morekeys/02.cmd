run
scontrol update NodeName=node3 Extra=extra1
