run
scontrol update NodeName=node2 AvailableFeatures=fast ActiveFeatures=fast
