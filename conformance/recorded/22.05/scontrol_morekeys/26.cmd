run
scontrol update NodeName=node[3-4] NodeHostname=node3
